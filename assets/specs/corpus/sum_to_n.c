/*@ requires 0 <= n <= 10000;
    assigns \nothing;
    ensures \result == n * (n + 1) / 2;
*/
int sum_to_n(int n) {
  int s = 0;
  /*@ loop invariant 1 <= i <= n + 1;
      loop invariant 2 * s == (i - 1) * i;
      loop assigns i, s;
      loop variant n + 1 - i;
  */
  for (int i = 1; i <= n; i++) {
    s += i;
  }
  return s;
}
