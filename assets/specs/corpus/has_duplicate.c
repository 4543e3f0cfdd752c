/*@ requires 0 <= n <= 1000;
    requires \valid_read(a + (0 .. n-1));
    assigns \nothing;
    ensures \result == 0 || \result == 1;
    ensures \result == 1 <==> (\exists integer p, q; 0 <= p < q < n && a[p] == a[q]);
*/
int has_duplicate(const int *a, int n) {
  /*@ loop invariant 0 <= i <= n;
      loop invariant \forall integer p, q; 0 <= p < q < n && p < i ==> a[p] != a[q];
      loop assigns i;
      loop variant n - i;
  */
  for (int i = 0; i < n; i++) {
    /*@ loop invariant i + 1 <= j <= n;
        loop invariant \forall integer q; i < q < j ==> a[i] != a[q];
        loop assigns j;
        loop variant n - j;
    */
    for (int j = i + 1; j < n; j++) {
      if (a[i] == a[j]) {
        return 1;
      }
    }
  }
  return 0;
}
