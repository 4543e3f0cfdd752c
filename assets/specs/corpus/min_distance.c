/*@ requires 2 <= n <= 1000;
    requires \valid_read(a + (0 .. n-1));
    requires \forall integer k; 0 <= k < n ==> -100000 <= a[k] <= 100000;
    assigns \nothing;
    ensures \result >= 0;
    ensures \forall integer p, q; 0 <= p < q < n ==> \result <= a[p] - a[q] && \result <= a[q] - a[p] || \result <= a[p] - a[q] && a[p] >= a[q] || \result <= a[q] - a[p] && a[q] >= a[p];
    ensures \exists integer p, q; 0 <= p < q < n && (\result == a[p] - a[q] || \result == a[q] - a[p]);
*/
int min_distance(const int *a, int n) {
  int best = a[0] - a[1];
  if (best < 0) {
    best = -best;
  }
  /*@ loop invariant 0 <= i <= n - 1;
      loop invariant best >= 0;
      loop invariant \forall integer p, q; 0 <= p < q < n && p < i ==> (a[p] >= a[q] ==> best <= a[p] - a[q]) && (a[q] >= a[p] ==> best <= a[q] - a[p]);
      loop invariant \exists integer p, q; 0 <= p < q < n && (best == a[p] - a[q] || best == a[q] - a[p]);
      loop assigns i, best;
      loop variant n - i;
  */
  for (int i = 0; i < n - 1; i++) {
    /*@ loop invariant i + 1 <= j <= n;
        loop invariant best >= 0;
        loop invariant \forall integer p, q; 0 <= p < q < n && p < i ==> (a[p] >= a[q] ==> best <= a[p] - a[q]) && (a[q] >= a[p] ==> best <= a[q] - a[p]);
        loop invariant \forall integer q; i < q < j ==> (a[i] >= a[q] ==> best <= a[i] - a[q]) && (a[q] >= a[i] ==> best <= a[q] - a[i]);
        loop invariant \exists integer p, q; 0 <= p < q < n && (best == a[p] - a[q] || best == a[q] - a[p]);
        loop assigns j, best;
        loop variant n - j;
    */
    for (int j = i + 1; j < n; j++) {
      int d = a[i] - a[j];
      if (d < 0) {
        d = -d;
      }
      if (d < best) {
        best = d;
      }
    }
  }
  return best;
}
