/*@ axiomatic SumPositive {
      logic integer sum_pos{L}(int *a, integer n) reads a[0 .. n-1];
      axiom sum_pos_empty{L}: \forall int *a, integer n; n <= 0 ==> sum_pos(a, n) == 0;
      axiom sum_pos_yes{L}: \forall int *a, integer n;
        n > 0 && a[n - 1] > 0 ==> sum_pos(a, n) == sum_pos(a, n - 1) + a[n - 1];
      axiom sum_pos_no{L}: \forall int *a, integer n;
        n > 0 && a[n - 1] <= 0 ==> sum_pos(a, n) == sum_pos(a, n - 1);
    }
*/
/*@ requires 0 <= n <= 1000;
    requires \valid_read(a + (0 .. n-1));
    requires \forall integer k; 0 <= k < n ==> a[k] <= 1000;
    assigns \nothing;
    ensures \result == sum_pos(a, n);
    ensures \result >= 0;
*/
int sum_positive(const int *a, int n) {
  int s = 0;
  /*@ loop invariant 0 <= i <= n;
      loop invariant s == sum_pos(a, i);
      loop invariant 0 <= s <= 1000 * i;
      loop assigns i, s;
      loop variant n - i;
  */
  for (int i = 0; i < n; i++) {
    if (a[i] > 0) {
      s += a[i];
    }
  }
  return s;
}
