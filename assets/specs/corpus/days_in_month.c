/*@ requires 1 <= month <= 12;
    assigns \nothing;
    ensures month == 2 ==> \result == 28;
    ensures (month == 4 || month == 6 || month == 9 || month == 11) ==> \result == 30;
    ensures (month != 2 && month != 4 && month != 6 && month != 9 && month != 11) ==> \result == 31;
*/
int days_in_month(int month) {
  if (month == 2) {
    return 28;
  }
  if (month == 4 || month == 6 || month == 9 || month == 11) {
    return 30;
  }
  return 31;
}
