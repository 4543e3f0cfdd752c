/*@ requires -1000000 <= a <= 1000000;
    requires -1000000 <= b <= 1000000;
    assigns \nothing;
    ensures \result >= 0;
    ensures \result == a - b || \result == b - a;
*/
int distance_between(int a, int b) {
  int d;
  if (a > b) {
    d = a - b;
  } else {
    d = b - a;
  }
  return d;
}
