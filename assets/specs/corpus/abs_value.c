/*@ requires x > -2147483647;
    assigns \nothing;
    ensures \result >= 0;
    ensures \result == x || \result == -x;
    ensures x >= 0 ==> \result == x;
*/
int abs_value(int x) {
  if (x < 0) {
    return -x;
  }
  return x;
}
