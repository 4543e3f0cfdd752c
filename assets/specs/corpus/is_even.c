/*@ assigns \nothing;
    ensures \result == 0 || \result == 1;
    ensures \result == 1 <==> n % 2 == 0;
*/
int is_even(int n) {
  if (n % 2 == 0) {
    return 1;
  }
  return 0;
}
