/*@ requires 0 <= n <= 1000;
    requires \valid_read(a + (0 .. n-1));
    assigns \nothing;
    ensures 0 <= \result <= n * n;
    ensures \result == 0 <==> (\forall integer p, q; 0 <= p < q < n ==> a[p] <= a[q]);
*/
int insertion_count(const int *a, int n) {
  int inv = 0;
  /*@ loop invariant 0 <= i <= n;
      loop invariant 0 <= inv <= i * n;
      loop invariant inv == 0 <==> (\forall integer p, q; 0 <= p < q < n && p < i ==> a[p] <= a[q]);
      loop assigns i, inv;
      loop variant n - i;
  */
  for (int i = 0; i < n; i++) {
    /*@ loop invariant i + 1 <= j <= n || (i + 1 > n && j == i + 1);
        loop invariant 0 <= inv <= i * n + (j - i - 1);
        loop invariant inv == 0 <==> ((\forall integer p, q; 0 <= p < q < n && p < i ==> a[p] <= a[q])
                                      && (\forall integer q; i < q < j ==> a[i] <= a[q]));
        loop assigns j, inv;
        loop variant n - j;
    */
    for (int j = i + 1; j < n; j++) {
      if (a[i] > a[j]) {
        inv++;
      }
    }
  }
  return inv;
}
