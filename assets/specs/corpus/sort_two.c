/*@ requires \valid(x) && \valid(y);
    requires \separated(x, y);
    assigns *x, *y;
    ensures *x <= *y;
    ensures (*x == \old(*x) && *y == \old(*y)) || (*x == \old(*y) && *y == \old(*x));
*/
void sort_two(int *x, int *y) {
  if (*x > *y) {
    int tmp = *x;
    *x = *y;
    *y = tmp;
  }
}
