/*@ requires 0 <= n <= 1000;
    requires \valid_read(a + (0 .. n-1));
    assigns \nothing;
    ensures \result == 0 || \result == 1;
    ensures \result == 1 <==> (\exists integer k; 0 <= k < n && a[k] == x);
*/
int contains_value(const int *a, int n, int x) {
  int i = 0;
  /*@ loop invariant 0 <= i <= n;
      loop invariant \forall integer k; 0 <= k < i ==> a[k] != x;
      loop assigns i;
      loop variant n - i;
  */
  while (i < n) {
    if (a[i] == x) {
      return 1;
    }
    i++;
  }
  return 0;
}
