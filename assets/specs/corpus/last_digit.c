/*@ requires n >= 0;
    assigns \nothing;
    ensures \result == n % 10;
    ensures 0 <= \result <= 9;
*/
int last_digit(int n) {
  return n % 10;
}
