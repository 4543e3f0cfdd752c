/*@ requires 1 <= n <= 1000;
    requires \valid_read(a + (0 .. n-1));
    assigns \nothing;
    ensures \forall integer k; 0 <= k < n ==> \result >= a[k];
    ensures \exists integer k; 0 <= k < n && \result == a[k];
*/
int max_array(const int *a, int n) {
  int m = a[0];
  /*@ loop invariant 1 <= i <= n;
      loop invariant \forall integer k; 0 <= k < i ==> m >= a[k];
      loop invariant \exists integer k; 0 <= k < i && m == a[k];
      loop assigns i, m;
      loop variant n - i;
  */
  for (int i = 1; i < n; i++) {
    if (a[i] > m) {
      m = a[i];
    }
  }
  return m;
}
