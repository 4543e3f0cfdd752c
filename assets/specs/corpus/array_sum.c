/*@ axiomatic Sum {
      logic integer sum{L}(int *a, integer n) reads a[0 .. n-1];
      axiom sum_empty{L}: \forall int *a, integer n; n <= 0 ==> sum(a, n) == 0;
      axiom sum_next{L}: \forall int *a, integer n; n > 0 ==> sum(a, n) == sum(a, n - 1) + a[n - 1];
    }
*/
/*@ requires 0 <= n <= 1000;
    requires \valid_read(a + (0 .. n-1));
    requires \forall integer k; 0 <= k < n ==> -1000 <= a[k] <= 1000;
    assigns \nothing;
    ensures \result == sum(a, n);
*/
int array_sum(const int *a, int n) {
  int s = 0;
  /*@ loop invariant 0 <= i <= n;
      loop invariant s == sum(a, i);
      loop invariant -1000 * i <= s <= 1000 * i;
      loop assigns i, s;
      loop variant n - i;
  */
  for (int i = 0; i < n; i++) {
    s += a[i];
  }
  return s;
}
