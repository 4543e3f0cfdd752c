/*@ assigns \nothing;
    ensures x > 0 ==> \result == 1;
    ensures x == 0 ==> \result == 0;
    ensures x < 0 ==> \result == -1;
*/
int sign_of(int x) {
  if (x > 0) {
    return 1;
  } else if (x < 0) {
    return -1;
  }
  return 0;
}
