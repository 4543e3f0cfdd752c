/*@ requires \valid(x) && \valid(y);
    requires \separated(x, y);
    assigns *x, *y;
    ensures *x == \old(*y);
    ensures *y == \old(*x);
*/
void swap_values(int *x, int *y) {
  int tmp = *x;
  *x = *y;
  *y = tmp;
}
