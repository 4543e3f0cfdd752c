/*@ predicate member{L}(int *a, integer n, integer x) = \exists integer k; 0 <= k < n && a[k] == x;
*/
/*@ requires 0 <= n <= 1000 && 0 <= m <= 1000;
    requires \valid_read(a + (0 .. n-1));
    requires \valid_read(b + (0 .. m-1));
    assigns \nothing;
    ensures \result == 0 || \result == 1;
    ensures \result == 1 <==> (\forall integer q; 0 <= q < m ==> member(a, n, b[q]));
*/
int contains_all(const int *a, int n, const int *b, int m) {
  /*@ loop invariant 0 <= j <= m;
      loop invariant \forall integer q; 0 <= q < j ==> member(a, n, b[q]);
      loop assigns j;
      loop variant m - j;
  */
  for (int j = 0; j < m; j++) {
    int found = 0;
    /*@ loop invariant 0 <= i <= n;
        loop invariant found == 0 || found == 1;
        loop invariant found == 1 <==> member(a, i, b[j]);
        loop assigns i, found;
        loop variant n - i;
    */
    for (int i = 0; i < n; i++) {
      if (a[i] == b[j]) {
        found = 1;
      }
    }
    if (!found) {
      return 0;
    }
  }
  return 1;
}
