/*@ axiomatic Pow2 {
      logic integer pow2(integer n);
      axiom pow2_zero: pow2(0) == 1;
      axiom pow2_next: \forall integer n; n > 0 ==> pow2(n) == 2 * pow2(n - 1);
    }
*/
/*@ requires 0 <= n <= 30;
    assigns \nothing;
    ensures \result == pow2(n);
*/
int power_of_two(int n) {
  int r = 1;
  int i = 0;
  /*@ loop invariant 0 <= i <= n;
      loop invariant r == pow2(i);
      loop invariant 1 <= r <= 1073741824;
      loop assigns i, r;
      loop variant n - i;
  */
  while (i < n) {
    r = r * 2;
    i = i + 1;
  }
  return r;
}
