/*@ requires 0 <= b <= 1000;
    requires -1000 <= a <= 1000;
    assigns \nothing;
    ensures \result == a * b;
*/
int multiply_by_adding(int a, int b) {
  int r = 0;
  int i = 0;
  /*@ loop invariant 0 <= i <= b;
      loop invariant r == a * i;
      loop assigns i, r;
      loop variant b - i;
  */
  while (i < b) {
    r = r + a;
    i = i + 1;
  }
  return r;
}
