/*@ requires lo <= hi;
    assigns \nothing;
    ensures lo <= \result <= hi;
    ensures lo <= x <= hi ==> \result == x;
    ensures x < lo ==> \result == lo;
    ensures x > hi ==> \result == hi;
*/
int clamp_value(int x, int lo, int hi) {
  if (x < lo) {
    return lo;
  }
  if (x > hi) {
    return hi;
  }
  return x;
}
