/*@ requires 10 <= n <= 99;
    assigns \nothing;
    ensures \result == n / 10 + n % 10;
    ensures 1 <= \result <= 18;
*/
int two_digit_sum(int n) {
  int tens = n / 10;
  int ones = n % 10;
  return tens + ones;
}
