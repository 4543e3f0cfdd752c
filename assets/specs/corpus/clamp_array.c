/*@ requires 0 <= n <= 1000;
    requires lo <= hi;
    requires \valid(a + (0 .. n-1));
    assigns a[0 .. n-1];
    ensures \forall integer k; 0 <= k < n ==> lo <= a[k] <= hi;
    ensures \forall integer k; 0 <= k < n && lo <= \old(a[k]) <= hi ==> a[k] == \old(a[k]);
*/
void clamp_array(int *a, int n, int lo, int hi) {
  /*@ loop invariant 0 <= i <= n;
      loop invariant \forall integer k; 0 <= k < i ==> lo <= a[k] <= hi;
      loop invariant \forall integer k; 0 <= k < i && lo <= \at(a[k], Pre) <= hi ==> a[k] == \at(a[k], Pre);
      loop invariant \forall integer k; i <= k < n ==> a[k] == \at(a[k], Pre);
      loop assigns i, a[0 .. n-1];
      loop variant n - i;
  */
  for (int i = 0; i < n; i++) {
    if (a[i] < lo) {
      a[i] = lo;
    } else if (a[i] > hi) {
      a[i] = hi;
    }
  }
}
