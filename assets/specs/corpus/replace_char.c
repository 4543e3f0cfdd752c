/*@ requires 0 <= n <= 1000;
    requires \valid(s + (0 .. n-1));
    assigns s[0 .. n-1];
    ensures \forall integer k; 0 <= k < n && \old(s[k]) == from ==> s[k] == to;
    ensures \forall integer k; 0 <= k < n && \old(s[k]) != from ==> s[k] == \old(s[k]);
*/
void replace_char(char *s, int n, char from, char to) {
  /*@ loop invariant 0 <= i <= n;
      loop invariant \forall integer k; 0 <= k < i && \at(s[k], Pre) == from ==> s[k] == to;
      loop invariant \forall integer k; 0 <= k < i && \at(s[k], Pre) != from ==> s[k] == \at(s[k], Pre);
      loop invariant \forall integer k; i <= k < n ==> s[k] == \at(s[k], Pre);
      loop assigns i, s[0 .. n-1];
      loop variant n - i;
  */
  for (int i = 0; i < n; i++) {
    if (s[i] == from) {
      s[i] = to;
    }
  }
}
