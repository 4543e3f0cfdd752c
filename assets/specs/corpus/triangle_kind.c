/*@ requires 0 <= a <= 100000 && 0 <= b <= 100000 && 0 <= c <= 100000;
    assigns \nothing;
    behavior invalid:
      assumes a <= 0 || b <= 0 || c <= 0 || a + b <= c || a + c <= b || b + c <= a;
      ensures \result == 0;
    behavior equilateral:
      assumes a > 0 && b > 0 && c > 0 && a + b > c && a + c > b && b + c > a;
      assumes a == b && b == c;
      ensures \result == 1;
    behavior isosceles:
      assumes a > 0 && b > 0 && c > 0 && a + b > c && a + c > b && b + c > a;
      assumes !(a == b && b == c) && (a == b || b == c || a == c);
      ensures \result == 2;
    behavior scalene:
      assumes a > 0 && b > 0 && c > 0 && a + b > c && a + c > b && b + c > a;
      assumes a != b && b != c && a != c;
      ensures \result == 3;
    complete behaviors;
    disjoint behaviors;
*/
int triangle_kind(int a, int b, int c) {
  if (a <= 0 || b <= 0 || c <= 0) {
    return 0;
  }
  if (a + b <= c || a + c <= b || b + c <= a) {
    return 0;
  }
  if (a == b && b == c) {
    return 1;
  }
  if (a == b || b == c || a == c) {
    return 2;
  }
  return 3;
}
