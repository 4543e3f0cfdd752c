/*@ requires 0 <= n <= 1000;
    requires \valid(a + (0 .. n-1));
    assigns a[0 .. n-1];
    ensures \forall integer k; 0 <= k < n ==> a[k] == v;
*/
void fill_array(int *a, int n, int v) {
  /*@ loop invariant 0 <= i <= n;
      loop invariant \forall integer k; 0 <= k < i ==> a[k] == v;
      loop assigns i, a[0 .. n-1];
      loop variant n - i;
  */
  for (int i = 0; i < n; i++) {
    a[i] = v;
  }
}
