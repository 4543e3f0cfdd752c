/*@ requires 0 <= n <= 1000;
    requires \valid(a + (0 .. n-1));
    requires \forall integer j; 0 <= j < n ==> -100000 <= a[j] <= 100000;
    assigns a[0 .. n-1];
    ensures \forall integer j; 0 <= j < n ==> a[j] == 3 * \old(a[j]);
*/
void scale_array(int *a, int n) {
  /*@ loop invariant 0 <= i <= n;
      loop invariant \forall integer j; 0 <= j < i ==> a[j] == 3 * \at(a[j], Pre);
      loop invariant \forall integer j; i <= j < n ==> a[j] == \at(a[j], Pre);
      loop assigns i, a[0 .. n-1];
      loop variant n - i;
  */
  for (int i = 0; i < n; i++) {
    a[i] = 3 * a[i];
  }
}
