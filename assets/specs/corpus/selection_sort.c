/*@ predicate sorted{L}(int *a, integer lo, integer hi) =
      \forall integer p, q; lo <= p <= q < hi ==> a[p] <= a[q];
*/
/*@ requires 0 <= n <= 1000;
    requires \valid(a + (0 .. n-1));
    assigns a[0 .. n-1];
    ensures sorted(a, 0, n);
*/
void selection_sort(int *a, int n) {
  /*@ loop invariant 0 <= i <= n;
      loop invariant sorted(a, 0, i);
      loop invariant \forall integer p, q; 0 <= p < i <= q < n ==> a[p] <= a[q];
      loop assigns i, a[0 .. n-1];
      loop variant n - i;
  */
  for (int i = 0; i < n; i++) {
    int best = i;
    /*@ loop invariant i + 1 <= j <= n;
        loop invariant i <= best < n;
        loop invariant \forall integer p; i <= p < j ==> a[best] <= a[p];
        loop assigns j, best;
        loop variant n - j;
    */
    for (int j = i + 1; j < n; j++) {
      if (a[j] < a[best]) {
        best = j;
      }
    }
    int t = a[i];
    a[i] = a[best];
    a[best] = t;
  }
}
