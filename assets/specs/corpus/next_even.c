/*@ requires 0 <= n <= 1000000;
    assigns \nothing;
    ensures \result % 2 == 0;
    ensures n < \result <= n + 2;
*/
int next_even(int n) {
  return n + 2 - n % 2;
}
