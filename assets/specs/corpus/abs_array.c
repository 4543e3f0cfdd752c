/*@ requires 0 <= n <= 1000;
    requires \valid(a + (0 .. n-1));
    requires \forall integer k; 0 <= k < n ==> a[k] > -2147483647;
    assigns a[0 .. n-1];
    ensures \forall integer k; 0 <= k < n ==> a[k] >= 0;
    ensures \forall integer k; 0 <= k < n ==> a[k] == \old(a[k]) || a[k] == -\old(a[k]);
*/
void abs_array(int *a, int n) {
  /*@ loop invariant 0 <= i <= n;
      loop invariant \forall integer k; 0 <= k < i ==> a[k] >= 0;
      loop invariant \forall integer k; 0 <= k < i ==> a[k] == \at(a[k], Pre) || a[k] == -\at(a[k], Pre);
      loop invariant \forall integer k; i <= k < n ==> a[k] == \at(a[k], Pre);
      loop assigns i, a[0 .. n-1];
      loop variant n - i;
  */
  for (int i = 0; i < n; i++) {
    if (a[i] < 0) {
      a[i] = -a[i];
    }
  }
}
