/*@ requires 0 <= n <= 1000;
    requires \valid_read(a + (0 .. n-1));
    assigns \nothing;
    ensures -1 <= \result < n;
    ensures \result >= 0 ==> a[\result] == x;
    ensures \forall integer k; \result < k < n ==> a[k] != x;
*/
int last_index_of(const int *a, int n, int x) {
  int i = n - 1;
  /*@ loop invariant -1 <= i <= n - 1;
      loop invariant \forall integer k; i < k < n ==> a[k] != x;
      loop assigns i;
      loop variant i + 1;
  */
  while (i >= 0) {
    if (a[i] == x) {
      return i;
    }
    i--;
  }
  return -1;
}
