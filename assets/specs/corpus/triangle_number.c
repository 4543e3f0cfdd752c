/*@ requires 0 <= n <= 10000;
    assigns \nothing;
    ensures \result == n * (n + 1) / 2;
*/
int triangle_number(int n) {
  int product = n * (n + 1);
  return product / 2;
}
