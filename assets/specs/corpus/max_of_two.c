/*@ assigns \nothing;
    ensures \result >= a && \result >= b;
    ensures \result == a || \result == b;
*/
int max_of_two(int a, int b) {
  if (a >= b) {
    return a;
  }
  return b;
}
