/*@ requires 0 <= rows <= 1000;
    requires 0 <= cols <= 1000;
    assigns \nothing;
    ensures \result == rows * cols;
*/
int count_grid_cells(int rows, int cols) {
  int c = 0;
  /*@ loop invariant 0 <= i <= rows;
      loop invariant c == i * cols;
      loop assigns i, c;
      loop variant rows - i;
  */
  for (int i = 0; i < rows; i++) {
    /*@ loop invariant 0 <= j <= cols;
        loop invariant c == i * cols + j;
        loop assigns j, c;
        loop variant cols - j;
    */
    for (int j = 0; j < cols; j++) {
      c++;
    }
  }
  return c;
}
