/*@ axiomatic CountChar {
      logic integer occurrences{L}(char *s, integer n, integer c) reads s[0 .. n-1];
      axiom occ_empty{L}: \forall char *s, integer n, integer c; n <= 0 ==> occurrences(s, n, c) == 0;
      axiom occ_hit{L}: \forall char *s, integer n, integer c;
        n > 0 && s[n - 1] == c ==> occurrences(s, n, c) == occurrences(s, n - 1, c) + 1;
      axiom occ_miss{L}: \forall char *s, integer n, integer c;
        n > 0 && s[n - 1] != c ==> occurrences(s, n, c) == occurrences(s, n - 1, c);
    }
*/
/*@ requires 0 <= n <= 1000;
    requires \valid_read(s + (0 .. n-1));
    assigns \nothing;
    ensures \result == occurrences(s, n, c);
    ensures 0 <= \result <= n;
*/
int count_char(const char *s, int n, int c) {
  int count = 0;
  /*@ loop invariant 0 <= i <= n;
      loop invariant count == occurrences(s, i, c);
      loop invariant 0 <= count <= i;
      loop assigns i, count;
      loop variant n - i;
  */
  for (int i = 0; i < n; i++) {
    if (s[i] == c) {
      count++;
    }
  }
  return count;
}
