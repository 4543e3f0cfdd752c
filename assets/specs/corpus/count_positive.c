/*@ axiomatic CountPositive {
      logic integer count_pos{L}(int *a, integer n) reads a[0 .. n-1];
      axiom count_pos_empty{L}: \forall int *a, integer n; n <= 0 ==> count_pos(a, n) == 0;
      axiom count_pos_yes{L}: \forall int *a, integer n;
        n > 0 && a[n - 1] > 0 ==> count_pos(a, n) == count_pos(a, n - 1) + 1;
      axiom count_pos_no{L}: \forall int *a, integer n;
        n > 0 && a[n - 1] <= 0 ==> count_pos(a, n) == count_pos(a, n - 1);
    }
*/
/*@ requires 0 <= n <= 1000;
    requires \valid_read(a + (0 .. n-1));
    assigns \nothing;
    ensures \result == count_pos(a, n);
    ensures 0 <= \result <= n;
*/
int count_positive(const int *a, int n) {
  int c = 0;
  /*@ loop invariant 0 <= i <= n;
      loop invariant c == count_pos(a, i);
      loop invariant 0 <= c <= i;
      loop assigns i, c;
      loop variant n - i;
  */
  for (int i = 0; i < n; i++) {
    if (a[i] > 0) {
      c++;
    }
  }
  return c;
}
