/*@ requires 0 <= score <= 100;
    assigns \nothing;
    ensures score >= 90 ==> \result == 4;
    ensures 80 <= score < 90 ==> \result == 3;
    ensures 70 <= score < 80 ==> \result == 2;
    ensures 60 <= score < 70 ==> \result == 1;
    ensures score < 60 ==> \result == 0;
*/
int letter_grade(int score) {
  if (score >= 90) {
    return 4;
  } else if (score >= 80) {
    return 3;
  } else if (score >= 70) {
    return 2;
  } else if (score >= 60) {
    return 1;
  }
  return 0;
}
