/*@ requires 0 <= width <= 100000;
    requires 0 <= height <= 100000;
    assigns \nothing;
    ensures \result == 2 * (width + height);
*/
int rectangle_perimeter(int width, int height) {
  int half = width + height;
  return 2 * half;
}
