/*@ requires 0 <= a <= 1000000;
    requires 0 <= b <= 1000000;
    assigns \nothing;
    ensures \result == (a + b) / 2;
    ensures 2 * \result <= a + b < 2 * \result + 2;
*/
int average_floor(int a, int b) {
  int total = a + b;
  return total / 2;
}
