/*@ requires 0 <= n <= 1000;
    requires \valid_read(a + (0 .. n-1));
    assigns \nothing;
    ensures \result == 0 || \result == 1;
    ensures \result == 1 <==> (\forall integer p, q; 0 <= p < q < n ==> a[p] != a[q]);
*/
int all_distinct(const int *a, int n) {
  int i = 0;
  /*@ loop invariant 0 <= i <= n;
      loop invariant \forall integer p, q; 0 <= q < p < i ==> a[p] != a[q];
      loop assigns i;
      loop variant n - i;
  */
  while (i < n) {
    /*@ loop invariant 0 <= j <= i;
        loop invariant \forall integer q; 0 <= q < j ==> a[i] != a[q];
        loop assigns j;
        loop variant i - j;
    */
    for (int j = 0; j < i; j++) {
      if (a[i] == a[j]) {
        return 0;
      }
    }
    i++;
  }
  return 1;
}
