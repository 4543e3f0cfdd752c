/*@ requires 0 <= n <= 1000;
    requires \valid_read(s + (0 .. n-1));
    assigns \nothing;
    ensures \result == 0 || \result == 1;
    ensures \result == 1 <==> (\forall integer k; 0 <= k < n ==> s[k] == s[n - 1 - k]);
*/
int is_palindrome(const char *s, int n) {
  int i = 0;
  int j = n - 1;
  /*@ loop invariant 0 <= i;
      loop invariant j == n - 1 - i;
      loop invariant i <= j + 2;
      loop invariant \forall integer k; 0 <= k < i ==> s[k] == s[n - 1 - k];
      loop assigns i, j;
      loop variant j - i;
  */
  while (i < j) {
    if (s[i] != s[j]) {
      return 0;
    }
    i++;
    j--;
  }
  return 1;
}
