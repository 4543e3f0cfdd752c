/*@ assigns \nothing;
    ensures \result >= a && \result >= b && \result >= c;
    ensures \result == a || \result == b || \result == c;
*/
int max_of_three(int a, int b, int c) {
  if (a >= b && a >= c) {
    return a;
  }
  if (b >= c) {
    return b;
  }
  return c;
}
