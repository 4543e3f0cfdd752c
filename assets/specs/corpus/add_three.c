/*@ requires -100000 <= a <= 100000;
    requires -100000 <= b <= 100000;
    requires -100000 <= c <= 100000;
    assigns \nothing;
    ensures \result == a + b + c;
*/
int add_three(int a, int b, int c) {
  int s = a + b;
  s = s + c;
  return s;
}
