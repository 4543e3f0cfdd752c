/*@ requires 2 <= n <= 1000;
    requires \valid_read(a + (0 .. n-1));
    requires \forall integer k; 0 <= k < n ==> -100000 <= a[k] <= 100000;
    assigns \nothing;
    ensures \forall integer p, q; 0 <= p < q < n ==> \result >= a[p] + a[q];
    ensures \exists integer p, q; 0 <= p < q < n && \result == a[p] + a[q];
*/
int max_pair_sum(const int *a, int n) {
  int best = a[0] + a[1];
  /*@ loop invariant 0 <= i <= n - 1;
      loop invariant \forall integer p, q; 0 <= p < q < n && p < i ==> best >= a[p] + a[q];
      loop invariant \exists integer p, q; 0 <= p < q < n && best == a[p] + a[q];
      loop assigns i, best;
      loop variant n - i;
  */
  for (int i = 0; i < n - 1; i++) {
    /*@ loop invariant i + 1 <= j <= n;
        loop invariant \forall integer p, q; 0 <= p < q < n && p < i ==> best >= a[p] + a[q];
        loop invariant \forall integer q; i < q < j ==> best >= a[i] + a[q];
        loop invariant \exists integer p, q; 0 <= p < q < n && best == a[p] + a[q];
        loop assigns j, best;
        loop variant n - j;
    */
    for (int j = i + 1; j < n; j++) {
      if (a[i] + a[j] > best) {
        best = a[i] + a[j];
      }
    }
  }
  return best;
}
