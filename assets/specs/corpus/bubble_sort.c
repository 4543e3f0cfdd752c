/*@ predicate sorted{L}(int *a, integer lo, integer hi) =
      \forall integer p, q; lo <= p <= q < hi ==> a[p] <= a[q];
*/
/*@ requires 0 <= n <= 1000;
    requires \valid(a + (0 .. n-1));
    assigns a[0 .. n-1];
    ensures sorted(a, 0, n);
*/
void bubble_sort(int *a, int n) {
  /*@ loop invariant 0 <= i <= n;
      loop invariant sorted(a, n - i, n);
      loop invariant \forall integer p, q; 0 <= p < n - i <= q < n ==> a[p] <= a[q];
      loop assigns i, a[0 .. n-1];
      loop variant n - i;
  */
  for (int i = 0; i < n; i++) {
    /*@ loop invariant 0 <= j <= n - i - 1 || (n - i - 1 < 0 && j == 0);
        loop invariant \forall integer p; 0 <= p <= j ==> a[p] <= a[j];
        loop invariant sorted(a, n - i, n);
        loop invariant \forall integer p, q; 0 <= p < n - i <= q < n ==> a[p] <= a[q];
        loop assigns j, a[0 .. n-i-1];
        loop variant n - i - 1 - j;
    */
    for (int j = 0; j < n - i - 1; j++) {
      if (a[j] > a[j + 1]) {
        int t = a[j];
        a[j] = a[j + 1];
        a[j + 1] = t;
      }
    }
  }
}
