/*@ requires 0 <= n <= 1000;
    requires \valid_read(a + (0 .. n-1));
    requires \valid_read(b + (0 .. n-1));
    requires \valid(out + (0 .. n-1));
    requires \separated(out + (0 .. n-1), a + (0 .. n-1));
    requires \separated(out + (0 .. n-1), b + (0 .. n-1));
    requires \forall integer k; 0 <= k < n ==> -100000 <= a[k] <= 100000;
    requires \forall integer k; 0 <= k < n ==> -100000 <= b[k] <= 100000;
    assigns out[0 .. n-1];
    ensures \forall integer k; 0 <= k < n ==> out[k] == a[k] + b[k];
*/
void pairwise_sum(const int *a, const int *b, int *out, int n) {
  /*@ loop invariant 0 <= i <= n;
      loop invariant \forall integer k; 0 <= k < i ==> out[k] == a[k] + b[k];
      loop assigns i, out[0 .. n-1];
      loop variant n - i;
  */
  for (int i = 0; i < n; i++) {
    out[i] = a[i] + b[i];
  }
}
