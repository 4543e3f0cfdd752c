/*@ predicate match_at{L}(char *s, char *t, integer pos, integer m) =
      \forall integer k; 0 <= k < m ==> s[pos + k] == t[k];
*/
/*@ requires 0 <= n <= 1000 && 1 <= m <= 1000;
    requires \valid_read(s + (0 .. n-1));
    requires \valid_read(t + (0 .. m-1));
    assigns \nothing;
    ensures \result == -1 || 0 <= \result <= n - m;
    ensures \result >= 0 ==> match_at(s, t, \result, m);
    ensures \result >= 0 ==> \forall integer p; 0 <= p < \result ==> !match_at(s, t, p, m);
    ensures \result == -1 ==> \forall integer p; 0 <= p <= n - m ==> !match_at(s, t, p, m);
*/
int find_substring(const char *s, int n, const char *t, int m) {
  /*@ loop invariant 0 <= i;
      loop invariant i <= n - m + 1 || i == 0;
      loop invariant \forall integer p; 0 <= p < i ==> !match_at(s, t, p, m);
      loop assigns i;
      loop variant n - m + 1 - i;
  */
  for (int i = 0; i + m <= n; i++) {
    int j = 0;
    /*@ loop invariant 0 <= j <= m;
        loop invariant match_at(s, t, i, j);
        loop assigns j;
        loop variant m - j;
    */
    while (j < m && s[i + j] == t[j]) {
      j++;
    }
    if (j == m) {
      return i;
    }
  }
  return -1;
}
