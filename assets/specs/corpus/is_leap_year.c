/*@ requires year > 0;
    assigns \nothing;
    ensures \result == 0 || \result == 1;
    ensures \result == 1 <==> ((year % 4 == 0 && year % 100 != 0) || year % 400 == 0);
*/
int is_leap_year(int year) {
  if (year % 400 == 0) {
    return 1;
  }
  if (year % 100 == 0) {
    return 0;
  }
  if (year % 4 == 0) {
    return 1;
  }
  return 0;
}
