/*@ requires 0 <= n <= 1000;
    requires \valid(s + (0 .. n-1));
    assigns s[0 .. n-1];
    ensures \forall integer k; 0 <= k < n && 'a' <= \old(s[k]) <= 'z' ==> s[k] == \old(s[k]) - 32;
    ensures \forall integer k; 0 <= k < n && !('a' <= \old(s[k]) <= 'z') ==> s[k] == \old(s[k]);
*/
void to_upper(char *s, int n) {
  /*@ loop invariant 0 <= i <= n;
      loop invariant \forall integer k; 0 <= k < i && 'a' <= \at(s[k], Pre) <= 'z' ==> s[k] == \at(s[k], Pre) - 32;
      loop invariant \forall integer k; 0 <= k < i && !('a' <= \at(s[k], Pre) <= 'z') ==> s[k] == \at(s[k], Pre);
      loop invariant \forall integer k; i <= k < n ==> s[k] == \at(s[k], Pre);
      loop assigns i, s[0 .. n-1];
      loop variant n - i;
  */
  for (int i = 0; i < n; i++) {
    if (s[i] >= 'a' && s[i] <= 'z') {
      s[i] = s[i] - 32;
    }
  }
}
