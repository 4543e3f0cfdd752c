/*@ requires 0 <= side <= 1000;
    assigns \nothing;
    ensures \result == side * side * side;
*/
int cube_volume(int side) {
  int face = side * side;
  return face * side;
}
