/*@ requires 0 <= side <= 40000;
    assigns \nothing;
    ensures \result == side * side;
    ensures \result >= 0;
*/
int square_area(int side) {
  int area = side * side;
  return area;
}
