/*@ assigns \nothing;
    ensures \result <= a && \result <= b && \result <= c;
    ensures \result == a || \result == b || \result == c;
*/
int min_of_three(int a, int b, int c) {
  int m = a;
  if (b < m) {
    m = b;
  }
  if (c < m) {
    m = c;
  }
  return m;
}
