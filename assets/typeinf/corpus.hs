-- The typeinf corpus: functions of the Prelude and base, written as base writes them (sometimes
-- simplified), each task as
--
--   ## name :: ground-truth type            (## name@Instance :: ... for one instance's method)
--   the function's equations
--   + a dependency declaration the task adds (data/newtype/class/instance, or a signature that
--     overrides the Prelude's, e.g. `zero :: Int` as base's Int instances use)
--   ! more-specific: <principal type>      (base declares a type more specific than the principal one)
--
-- Dependencies are solved as TF-Bench does: the signature of every free function, the declaration of
-- every constructor's type and the header of every class they mention (core/families/typeinf/corpus.py).
-- Every task is validated by GHC in the tests (tests/families/typeinf/test_typeinf_ghc.py).

-- ==== monomorphic ==================================================================================

## not :: Bool -> Bool
not True  = False
not False = True

## (&&) :: Bool -> Bool -> Bool
True  && x = x
False && _ = False

## (||) :: Bool -> Bool -> Bool
True  || _ = True
False || x = x

## xor :: Bool -> Bool -> Bool
xor True  b = not b
xor False b = b

## otherwise :: Bool
otherwise = True

## words :: String -> [String]
words s = case dropWhile isSpace s of
  "" -> []
  s' -> w : words s''
    where (w, s'') = break isSpace s'

## lines :: String -> [String]
lines "" = []
lines s  = cons (case break (== '\n') s of
                   (l, s') -> (l, case s' of
                                   []      -> []
                                   _:s''   -> lines s''))
  where cons ~(h, t) = h : t

## unwords :: [String] -> String
unwords [] = ""
unwords ws = foldr1 (\w s -> w ++ ' ':s) ws

## unlines :: [String] -> String
unlines = concatMap (++ "\n")

## and :: [Bool] -> Bool
and = foldr (&&) True

## or :: [Bool] -> Bool
or = foldr (||) False

## isSpace :: Char -> Bool
isSpace c = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'

## isDigit :: Char -> Bool
isDigit c = c >= '0' && c <= '9'

## isOctDigit :: Char -> Bool
isOctDigit c = c >= '0' && c <= '7'

## isHexDigit :: Char -> Bool
isHexDigit c = isDigit c || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f')

## isAsciiUpper :: Char -> Bool
isAsciiUpper c = c >= 'A' && c <= 'Z'

## isAsciiLower :: Char -> Bool
isAsciiLower c = c >= 'a' && c <= 'z'

## isAscii :: Char -> Bool
isAscii c = c < '\x80'

## isLatin1 :: Char -> Bool
isLatin1 c = c <= '\xff'

## isAlpha :: Char -> Bool
isAlpha c = isAsciiLower c || isAsciiUpper c

## isAlphaNum :: Char -> Bool
isAlphaNum c = isAlpha c || isDigit c

## isSymbolChar :: Char -> Bool
isSymbolChar c = c `elem` "!@#$%&*+./<=>?\\^|:-~"

## isIdChar :: Char -> Bool
isIdChar c = isAlphaNum c || c `elem` "_'"

## toUpper :: Char -> Char
toUpper c
  | isAsciiLower c = chr (ord c - 32)
  | otherwise      = c

## toLower :: Char -> Char
toLower c
  | isAsciiUpper c = chr (ord c + 32)
  | otherwise      = c

## digitToInt :: Char -> Int
digitToInt c
  | isDigit c            = ord c - ord '0'
  | c >= 'a' && c <= 'f' = ord c - ord 'a' + 10
  | c >= 'A' && c <= 'F' = ord c - ord 'A' + 10
  | otherwise            = error "Char.digitToInt: not a digit"

## intToDigit :: Int -> Char
intToDigit i
  | i >= 0  && i <= 9  = chr (ord '0' + i)
  | i >= 10 && i <= 15 = chr (ord 'a' + i - 10)
  | otherwise          = error "Char.intToDigit: not a digit"

## showParen :: Bool -> ShowS -> ShowS
showParen b p = if b then showChar '(' . p . showChar ')' else p

## showSpace :: ShowS
showSpace = \xs -> ' ' : xs

## showCommaSpace :: ShowS
showCommaSpace = showString ", "

## showLitString :: String -> ShowS
showLitString []         s = s
showLitString ('"' : cs) s = showString "\\\"" (showLitString cs s)
showLitString (c   : cs) s = showChar c (showLitString cs s)

## compare@Bool :: Bool -> Bool -> Ordering
compare False True  = LT
compare True  False = GT
compare _     _     = EQ

## (==)@Bool :: Bool -> Bool -> Bool
True  == True  = True
False == False = True
_     == _     = False

## (==)@Ordering :: Ordering -> Ordering -> Bool
LT == LT = True
EQ == EQ = True
GT == GT = True
_  == _  = False

## (<>)@Ordering :: Ordering -> Ordering -> Ordering
LT <> _ = LT
EQ <> y = y
GT <> _ = GT

## show@Bool :: Bool -> String
show True  = "True"
show False = "False"

## show@Ordering :: Ordering -> String
show LT = "LT"
show EQ = "EQ"
show GT = "GT"

## succ@Bool :: Bool -> Bool
succ False = True
succ True  = error "Prelude.Enum.Bool.succ: bad argument"

## pred@Bool :: Bool -> Bool
pred True  = False
pred False = error "Prelude.Enum.Bool.pred: bad argument"

## succ@Ordering :: Ordering -> Ordering
succ LT = EQ
succ EQ = GT
succ GT = error "Prelude.Enum.Ordering.succ: bad argument"

## pred@Ordering :: Ordering -> Ordering
pred GT = EQ
pred EQ = LT
pred LT = error "Prelude.Enum.Ordering.pred: bad argument"

## fromEnum@Bool :: Bool -> Int
fromEnum False = zero
fromEnum True  = one
+ zero :: Int
+ one :: Int

## toEnum@Bool :: Int -> Bool
toEnum n
  | n == zero = False
  | n == one  = True
  | otherwise = error "Prelude.Enum.Bool.toEnum: bad argument"
+ zero :: Int
+ one :: Int

## fromEnum@Ordering :: Ordering -> Int
fromEnum LT = zero
fromEnum EQ = one
fromEnum GT = two
+ zero :: Int
+ one :: Int
+ two :: Int

## enumFromTo@Bool :: Bool -> Bool -> [Bool]
enumFromTo x y = map toEnum [fromEnum x .. fromEnum y]
+ toEnum :: Int -> Bool
+ fromEnum :: Bool -> Int

## minBound@Bool :: Bool
minBound = False

## maxBound@Ordering :: Ordering
maxBound = GT

## abs@Int :: Int -> Int
abs n = if n > zero then n else negate n
+ zero :: Int

## signum@Int :: Int -> Int
signum n
  | n < zero  = negate one
  | n == zero = zero
  | otherwise = one
+ zero :: Int
+ one :: Int

## even@Int :: Int -> Bool
even n = n `rem` two == zero
+ zero :: Int
+ two :: Int

## odd@Int :: Int -> Bool
odd = not . even
+ even :: Int -> Bool

## max@Char :: Char -> Char -> Char
max x y = if x <= y then y else x
+ (<=) :: Char -> Char -> Bool

## isUpperHex :: String -> Bool
isUpperHex s = all (\c -> isDigit c || (c >= 'A' && c <= 'F')) s

## capitalize :: String -> String
capitalize []     = []
capitalize (c:cs) = toUpper c : map toLower cs

## countWords :: String -> Int
countWords = length . words

## readDec :: String -> Int
readDec = foldl (\n d -> n * 10 + digitToInt d) 0

## trim :: String -> String
trim = f . f
  where f = reverse . dropWhile isSpace

-- ==== parametric ===================================================================================

## id :: a -> a
id x = x

## const :: a -> b -> a
const x _ = x

## flip :: (a -> b -> c) -> b -> a -> c
flip f x y = f y x

## (.) :: (b -> c) -> (a -> b) -> a -> c
(.) f g = \x -> f (g x)

## ($) :: (a -> b) -> a -> b
f $ x = f x

## fst :: (a, b) -> a
fst (x, _) = x

## snd :: (a, b) -> b
snd (_, y) = y

## curry :: ((a, b) -> c) -> a -> b -> c
curry f x y = f (x, y)

## uncurry :: (a -> b -> c) -> (a, b) -> c
uncurry f p = f (fst p) (snd p)

## swap :: (a, b) -> (b, a)
swap (a, b) = (b, a)

## maybe :: b -> (a -> b) -> Maybe a -> b
maybe n _ Nothing  = n
maybe _ f (Just x) = f x

## either :: (a -> c) -> (b -> c) -> Either a b -> c
either f _ (Left x)  = f x
either _ g (Right y) = g y

## until :: (a -> Bool) -> (a -> a) -> a -> a
until p f = go
  where
    go x | p x       = x
         | otherwise = go (f x)

## asTypeOf :: a -> a -> a
asTypeOf = const
! more-specific: a -> b -> a

## bool :: a -> a -> Bool -> a
bool f _ False = f
bool _ t True  = t

## on :: (b -> b -> c) -> (a -> b) -> a -> a -> c
on op f = \x y -> f x `op` f y

## map :: (a -> b) -> [a] -> [b]
map _ []     = []
map f (x:xs) = f x : map f xs

## (++) :: [a] -> [a] -> [a]
(++) []     ys = ys
(++) (x:xs) ys = x : xs ++ ys

## filter :: (a -> Bool) -> [a] -> [a]
filter _ [] = []
filter pred (x:xs)
  | pred x    = x : filter pred xs
  | otherwise = filter pred xs

## head :: [a] -> a
head (x:_) = x
head []    = errorEmptyList "head"
+ errorEmptyList :: String -> a

## last :: [a] -> a
last [x]    = x
last (_:xs) = last xs
last []     = errorEmptyList "last"
+ errorEmptyList :: String -> a

## tail :: [a] -> [a]
tail (_:xs) = xs
tail []     = errorEmptyList "tail"
+ errorEmptyList :: String -> a

## init :: [a] -> [a]
init [x]    = []
init (x:xs) = x : init xs
init []     = errorEmptyList "init"
+ errorEmptyList :: String -> a

## null :: [a] -> Bool
null []    = True
null (_:_) = False

## length :: [a] -> Int
length []     = zero
length (_:xs) = one + length xs
+ zero :: Int
+ one :: Int

## (!!) :: [a] -> Int -> a
xs !! n | n < zero = error "Prelude.!!: negative index"
[] !! _            = error "Prelude.!!: index too large"
(x:_) !! n | n == zero = x
(_:xs) !! n        = xs !! (n - one)
+ zero :: Int
+ one :: Int

## reverse :: [a] -> [a]
reverse l = rev l []
  where
    rev []     a = a
    rev (x:xs) a = rev xs (x:a)

## concat :: [[a]] -> [a]
concat = foldr (++) []

## concatMap :: (a -> [b]) -> [a] -> [b]
concatMap f = foldr ((++) . f) []

## foldr :: (a -> b -> b) -> b -> [a] -> b
foldr k z = go
  where
    go []     = z
    go (y:ys) = y `k` go ys

## foldl :: (b -> a -> b) -> b -> [a] -> b
foldl f z []     = z
foldl f z (x:xs) = foldl f (f z x) xs

## foldr1 :: (a -> a -> a) -> [a] -> a
foldr1 f = go
  where go [x]    = x
        go (x:xs) = f x (go xs)
        go []     = errorEmptyList "foldr1"
+ errorEmptyList :: String -> a

## foldl1 :: (a -> a -> a) -> [a] -> a
foldl1 f (x:xs) = foldl f x xs
foldl1 _ []     = errorEmptyList "foldl1"
+ errorEmptyList :: String -> a

## scanl :: (b -> a -> b) -> b -> [a] -> [b]
scanl f q ls = q : (case ls of
                      []   -> []
                      x:xs -> scanl f (f q x) xs)

## scanl1 :: (a -> a -> a) -> [a] -> [a]
scanl1 f (x:xs) = scanl f x xs
scanl1 _ []     = []

## scanr :: (a -> b -> b) -> b -> [a] -> [b]
scanr _ q0 []     = [q0]
scanr f q0 (x:xs) = f x q : qs
  where qs@(q:_) = scanr f q0 xs

## scanr1 :: (a -> a -> a) -> [a] -> [a]
scanr1 _ []     = []
scanr1 _ [x]    = [x]
scanr1 f (x:xs) = f x q : qs
  where qs@(q:_) = scanr1 f xs

## iterate :: (a -> a) -> a -> [a]
iterate f x = x : iterate f (f x)

## repeat :: a -> [a]
repeat x = xs where xs = x : xs

## replicate :: Int -> a -> [a]
replicate n x = take n (repeat x)

## cycle :: [a] -> [a]
cycle [] = errorEmptyList "cycle"
cycle xs = xs' where xs' = xs ++ xs'
+ errorEmptyList :: String -> a

## take :: Int -> [a] -> [a]
take n _ | n <= zero = []
take _ []            = []
take n (x:xs)        = x : take (n - one) xs
+ zero :: Int
+ one :: Int

## drop :: Int -> [a] -> [a]
drop n xs | n <= zero = xs
drop _ []             = []
drop n (_:xs)         = drop (n - one) xs
+ zero :: Int
+ one :: Int

## splitAt :: Int -> [a] -> ([a], [a])
splitAt n xs = (take n xs, drop n xs)

## takeWhile :: (a -> Bool) -> [a] -> [a]
takeWhile _ [] = []
takeWhile p (x:xs)
  | p x       = x : takeWhile p xs
  | otherwise = []

## dropWhile :: (a -> Bool) -> [a] -> [a]
dropWhile _ [] = []
dropWhile p xs@(x:xs')
  | p x       = dropWhile p xs'
  | otherwise = xs

## span :: (a -> Bool) -> [a] -> ([a], [a])
span _ xs@[] = (xs, xs)
span p xs@(x:xs')
  | p x       = let (ys, zs) = span p xs' in (x:ys, zs)
  | otherwise = ([], xs)

## break :: (a -> Bool) -> [a] -> ([a], [a])
break p = span (not . p)

## zip :: [a] -> [b] -> [(a, b)]
zip []     _      = []
zip _      []     = []
zip (a:as) (b:bs) = (a, b) : zip as bs

## zip3 :: [a] -> [b] -> [c] -> [(a, b, c)]
zip3 (a:as) (b:bs) (c:cs) = (a, b, c) : zip3 as bs cs
zip3 _      _      _      = []

## zipWith :: (a -> b -> c) -> [a] -> [b] -> [c]
zipWith f = go
  where
    go [] _          = []
    go _ []          = []
    go (x:xs) (y:ys) = f x y : go xs ys

## zipWith3 :: (a -> b -> c -> d) -> [a] -> [b] -> [c] -> [d]
zipWith3 z (a:as) (b:bs) (c:cs) = z a b c : zipWith3 z as bs cs
zipWith3 _ _ _ _                = []

## unzip :: [(a, b)] -> ([a], [b])
unzip = foldr (\(a, b) ~(as, bs) -> (a:as, b:bs)) ([], [])

## unzip3 :: [(a, b, c)] -> ([a], [b], [c])
unzip3 = foldr (\(a, b, c) ~(as, bs, cs) -> (a:as, b:bs, c:cs)) ([], [], [])

## any :: (a -> Bool) -> [a] -> Bool
any p = or . map p

## all :: (a -> Bool) -> [a] -> Bool
all p = and . map p

## fromMaybe :: a -> Maybe a -> a
fromMaybe d x = case x of
  Nothing -> d
  Just v  -> v

## catMaybes :: [Maybe a] -> [a]
catMaybes ls = [x | Just x <- ls]

## mapMaybe :: (a -> Maybe b) -> [a] -> [b]
mapMaybe _ [] = []
mapMaybe f (x:xs) =
  let rs = mapMaybe f xs in
  case f x of
    Nothing -> rs
    Just r  -> r : rs

## isJust :: Maybe a -> Bool
isJust Nothing = False
isJust _       = True

## isNothing :: Maybe a -> Bool
isNothing Nothing = True
isNothing _       = False

## fromJust :: Maybe a -> a
fromJust Nothing  = error "Maybe.fromJust: Nothing"
fromJust (Just x) = x

## listToMaybe :: [a] -> Maybe a
listToMaybe = foldr (const . Just) Nothing

## maybeToList :: Maybe a -> [a]
maybeToList Nothing  = []
maybeToList (Just x) = [x]

## lefts :: [Either a b] -> [a]
lefts x = [a | Left a <- x]

## rights :: [Either a b] -> [b]
rights x = [a | Right a <- x]

## partitionEithers :: [Either a b] -> ([a], [b])
partitionEithers = foldr (either left right) ([], [])
  where
    left  a ~(l, r) = (a:l, r)
    right a ~(l, r) = (l, a:r)

## isLeft :: Either a b -> Bool
isLeft (Left _)  = True
isLeft (Right _) = False

## fromLeft :: a -> Either a b -> a
fromLeft _ (Left a) = a
fromLeft a _        = a

## intersperse :: a -> [a] -> [a]
intersperse _   []     = []
intersperse sep (x:xs) = x : go xs
  where
    go []     = []
    go (y:ys) = sep : y : go ys

## intercalate :: [a] -> [[a]] -> [a]
intercalate xs xss = concat (intersperse xs xss)

## partition :: (a -> Bool) -> [a] -> ([a], [a])
partition p xs = foldr select ([], []) xs
  where select x ~(ts, fs) | p x       = (x:ts, fs)
                           | otherwise = (ts, x:fs)

## tails :: [a] -> [[a]]
tails lst = lst : case lst of
  []     -> []
  _ : xs -> tails xs

## unfoldr :: (b -> Maybe (a, b)) -> b -> [a]
unfoldr f b0 = go b0
  where go b = case f b of
                 Just (a, new_b) -> a : go new_b
                 Nothing         -> []

## foldl' :: (b -> a -> b) -> b -> [a] -> b
foldl' f z []     = z
foldl' f z (x:xs) = let z' = f z x in z' `seq` foldl' f z' xs

## transpose :: [[a]] -> [[a]]
transpose [] = []
transpose ([] : xss) = transpose xss
transpose ((x:xs) : xss) = (x : [h | (h:_) <- xss]) : transpose (xs : [t | (_:t) <- xss])

## find :: (a -> Bool) -> [a] -> Maybe a
find p = listToMaybe . filter p

## lookupDefault :: b -> (a -> Bool) -> [(a, b)] -> b
lookupDefault d p xs = case [v | (k, v) <- xs, p k] of
  []    -> d
  (v:_) -> v

## groupBy :: (a -> a -> Bool) -> [a] -> [[a]]
groupBy _  []     = []
groupBy eq (x:xs) = (x:ys) : groupBy eq zs
  where (ys, zs) = span (eq x) xs

## deleteBy :: (a -> a -> Bool) -> a -> [a] -> [a]
deleteBy _  _ []     = []
deleteBy eq x (y:ys) = if x `eq` y then ys else y : deleteBy eq x ys
! more-specific: (a -> b -> Bool) -> a -> [b] -> [b]

## insertBy :: (a -> a -> Ordering) -> a -> [a] -> [a]
insertBy _   x [] = [x]
insertBy cmp x ys@(y:ys') = case cmp x y of
  GT -> y : insertBy cmp x ys'
  _  -> x : ys

## mapAccumL :: (acc -> x -> (acc, y)) -> acc -> [x] -> (acc, [y])
mapAccumL _ s []     = (s, [])
mapAccumL f s (x:xs) = (s'', y:ys)
  where (s', y)   = f s x
        (s'', ys) = mapAccumL f s' xs

## uncons :: [a] -> Maybe (a, [a])
uncons []     = Nothing
uncons (x:xs) = Just (x, xs)

## either'@Pair :: (a -> c) -> (b -> d) -> (a, b) -> (c, d)
either' f g (x, y) = (f x, g y)

## first :: (a -> b) -> (a, c) -> (b, c)
first f (a, c) = (f a, c)

## subsequences :: [a] -> [[a]]
subsequences xs = [] : nonEmptySubsequences xs
  where
    nonEmptySubsequences []     = []
    nonEmptySubsequences (x:xs) = [x] : foldr f [] (nonEmptySubsequences xs)
      where f ys r = ys : (x : ys) : r

-- ==== ad-hoc =======================================================================================

## (/=) :: Eq a => a -> a -> Bool
x /= y = not (x == y)

## (==) :: Eq a => a -> a -> Bool
x == y = not (x /= y)

## compare :: Ord a => a -> a -> Ordering
compare x y = if x == y then EQ
              else if x <= y then LT
              else GT

## (<) :: Ord a => a -> a -> Bool
x < y = case compare x y of { LT -> True; _ -> False }

## max :: Ord a => a -> a -> a
max x y = if x <= y then y else x

## min :: Ord a => a -> a -> a
min x y = if x <= y then x else y

## elem :: Eq a => a -> [a] -> Bool
elem _ []     = False
elem x (y:ys) = x == y || elem x ys

## notElem :: Eq a => a -> [a] -> Bool
notElem x = not . elem x

## lookup :: Eq a => a -> [(a, b)] -> Maybe b
lookup _key [] = Nothing
lookup key ((x, y):xys)
  | key == x  = Just y
  | otherwise = lookup key xys

## sum :: Num a => [a] -> a
sum = foldl (+) 0

## product :: Num a => [a] -> a
product = foldl (*) 1

## maximum :: Ord a => [a] -> a
maximum [] = errorEmptyList "maximum"
maximum xs = foldl1 max xs
+ errorEmptyList :: String -> a

## minimum :: Ord a => [a] -> a
minimum [] = errorEmptyList "minimum"
minimum xs = foldl1 min xs
+ errorEmptyList :: String -> a

## subtract :: Num a => a -> a -> a
subtract x y = y - x

## negate :: Num a => a -> a
negate x = 0 - x

## (-) :: Num a => a -> a -> a
x - y = x + negate y

## recip :: Fractional a => a -> a
recip x = 1 / x

## (/) :: Fractional a => a -> a -> a
x / y = x * recip y

## even :: Integral a => a -> Bool
even n = n `rem` 2 == 0

## odd :: Integral a => a -> Bool
odd = not . even

## gcd :: Integral a => a -> a -> a
gcd x y = gcd' (abs x) (abs y)
  where gcd' a 0 = a
        gcd' a b = gcd' b (a `rem` b)

## lcm :: Integral a => a -> a -> a
lcm _ 0 = 0
lcm 0 _ = 0
lcm x y = abs ((x `quot` (gcd x y)) * y)

## (^) :: (Num a, Integral b) => a -> b -> a
x0 ^ y0 | y0 < 0    = error "Negative exponent"
        | y0 == 0   = 1
        | otherwise = f x0 y0
  where
    f x y | even y    = f (x * x) (y `quot` 2)
          | y == 1    = x
          | otherwise = g (x * x) (y `quot` 2) x
    g x y z | even y    = g (x * x) (y `quot` 2) z
            | y == 1    = x * z
            | otherwise = g (x * x) (y `quot` 2) (x * z)

## (^^) :: (Fractional a, Integral b) => a -> b -> a
x ^^ n = if n >= 0 then x ^ n else recip (x ^ negate n)

## fromIntegral :: (Integral a, Num b) => a -> b
fromIntegral = fromInteger . toInteger

## realToFrac :: (Real a, Fractional b) => a -> b
realToFrac = fromRational . toRational

## divMod :: Integral a => a -> a -> (a, a)
divMod n d = if signum r == negate (signum d) then (q - 1, r + d) else qr
  where qr@(q, r) = quotRem n d

## div :: Integral a => a -> a -> a
div n d = q where (q, _) = divMod n d

## mod :: Integral a => a -> a -> a
mod n d = r where (_, r) = divMod n d

## truncate :: (RealFrac a, Integral b) => a -> b
truncate x = m where (m, _) = properFraction x

## ceiling :: (RealFrac a, Integral b) => a -> b
ceiling x = if r > 0 then n + 1 else n
  where (n, r) = properFraction x

## floor :: (RealFrac a, Integral b) => a -> b
floor x = if r < 0 then n - 1 else n
  where (n, r) = properFraction x

## sqrt :: Floating a => a -> a
sqrt x = x ** 0.5

## logBase :: Floating a => a -> a -> a
logBase x y = log y / log x

## tan :: Floating a => a -> a
tan x = sin x / cos x

## shows :: Show a => a -> ShowS
shows = showsPrec 0

## show :: Show a => a -> String
show x = shows x ""

## print :: Show a => a -> IO ()
print x = putStrLn (show x)

## reads :: Read a => ReadS a
reads = readsPrec 0

## read :: Read a => String -> a
read s = case [x | (x, t) <- reads s, ("", "") <- lex t] of
  [x] -> x
  []  -> error "Prelude.read: no parse"
  _   -> error "Prelude.read: ambiguous parse"

## mapM_ :: Monad m => (a -> m b) -> [a] -> m ()
mapM_ f = foldr ((>>) . f) (return ())

## sequence_ :: Monad m => [m a] -> m ()
sequence_ = foldr (>>) (return ())

## sequence :: Monad m => [m a] -> m [a]
sequence ms = foldr k (return []) ms
  where
    k m m' = do { x <- m; xs <- m'; return (x:xs) }

## mapM :: Monad m => (a -> m b) -> [a] -> m [b]
mapM f as = sequence (map f as)

## (=<<) :: Monad m => (a -> m b) -> m a -> m b
f =<< x = x >>= f

## liftM :: Monad m => (a1 -> r) -> m a1 -> m r
liftM f m1 = do { x1 <- m1; return (f x1) }

## liftM2 :: Monad m => (a1 -> a2 -> r) -> m a1 -> m a2 -> m r
liftM2 f m1 m2 = do { x1 <- m1; x2 <- m2; return (f x1 x2) }

## ap :: Monad m => m (a -> b) -> m a -> m b
ap m1 m2 = do { x1 <- m1; x2 <- m2; return (x1 x2) }

## join :: Monad m => m (m a) -> m a
join x = x >>= id

## when :: Applicative f => Bool -> f () -> f ()
when p s = if p then s else pure ()

## unless :: Applicative f => Bool -> f () -> f ()
unless p s = if p then pure () else s

## void :: Functor f => f a -> f ()
void x = () <$ x

## (<$>) :: Functor f => (a -> b) -> f a -> f b
(<$>) = fmap

## mconcat :: Monoid a => [a] -> a
mconcat = foldr mappend mempty

## mappend :: Semigroup a => a -> a -> a
mappend = (<>)

## foldMap :: Monoid m => (a -> m) -> [a] -> m
foldMap f = foldr (mappend . f) mempty

## comparing :: Ord a => (b -> a) -> b -> b -> Ordering
comparing p x y = compare (p x) (p y)

## sort :: Ord a => [a] -> [a]
sort = sortBy compare

## insert :: Ord a => a -> [a] -> [a]
insert e ls = insertBy compare e ls

## nub :: Eq a => [a] -> [a]
nub l = nub' l []
  where
    nub' [] _ = []
    nub' (x:xs) ls
      | x `elem` ls = nub' xs ls
      | otherwise   = x : nub' xs (x:ls)

## delete :: Eq a => a -> [a] -> [a]
delete = deleteBy (==)

## (\\) :: Eq a => [a] -> [a] -> [a]
(\\) = foldl (flip delete)

## group :: Eq a => [a] -> [[a]]
group = groupBy (==)

## isPrefixOf :: Eq a => [a] -> [a] -> Bool
isPrefixOf [] _          = True
isPrefixOf _  []         = False
isPrefixOf (x:xs) (y:ys) = x == y && isPrefixOf xs ys

## isSuffixOf :: Eq a => [a] -> [a] -> Bool
isSuffixOf xs ys = reverse xs `isPrefixOf` reverse ys

## intersect :: Eq a => [a] -> [a] -> [a]
intersect xs ys = [x | x <- xs, x `elem` ys]

## union :: Eq a => [a] -> [a] -> [a]
union xs ys = xs ++ foldl (flip delete) (nub ys) xs

## genericLength :: Num i => [a] -> i
genericLength []    = 0
genericLength (_:l) = 1 + genericLength l

## elemIndex :: Eq a => a -> [a] -> Maybe Int
elemIndex x = go zero
  where
    go _ [] = Nothing
    go i (y:ys) | x == y    = Just i
                | otherwise = go (i + one) ys
+ zero :: Int
+ one :: Int

## lookupAll :: Eq k => k -> [(k, v)] -> [v]
lookupAll k kvs = [v | (k', v) <- kvs, k == k']

## average :: Fractional a => [a] -> a
average xs = sum xs / fromIntegral (length xs)

## showList__ :: (a -> ShowS) -> [a] -> ShowS
showList__ _     []     s = "[]" ++ s
showList__ showx (x:xs) s = '[' : showx x (showl xs)
  where
    showl []     = ']' : s
    showl (y:ys) = ',' : showx y (showl ys)

## showListWith :: Show a => [a] -> ShowS
showListWith = showList__ shows
+ showList__ :: (a -> ShowS) -> [a] -> ShowS

## filterM :: Monad m => (a -> m Bool) -> [a] -> m [a]
filterM _ [] = return []
filterM p (x:xs) = do
  flg <- p x
  ys <- filterM p xs
  return (if flg then x : ys else ys)

## foldM :: Monad m => (b -> a -> m b) -> b -> [a] -> m b
foldM _ a []     = return a
foldM f a (x:xs) = f a x >>= \fax -> foldM f fax xs

## zipWithM_ :: Monad m => (a -> b -> m c) -> [a] -> [b] -> m ()
zipWithM_ f xs ys = sequence_ (zipWith f xs ys)

## replicateM_ :: Monad m => Int -> m a -> m ()
replicateM_ n x = sequence_ (replicate n x)

## mapMaybeM :: Monad m => (a -> m (Maybe b)) -> [a] -> m [b]
mapMaybeM f xs = liftM catMaybes (mapM f xs)

## abs :: (Ord a, Num a) => a -> a
abs x = if x >= 0 then x else negate x

## clamp :: Ord a => (a, a) -> a -> a
clamp (low, high) a = min high (max a low)

## maximumBy :: (a -> a -> Ordering) -> [a] -> a
maximumBy cmp = foldl1 (\x y -> case cmp x y of { GT -> x; _ -> y })

## sortOn :: Ord b => (a -> b) -> [a] -> [a]
sortOn f = map snd . sortBy (comparing fst) . map (\x -> let y = f x in y `seq` (y, x))

-- ==== with data, newtype and class dependencies ====================================================

## sconcat :: Semigroup a => NonEmpty a -> a
sconcat (a :| as) = go a as
  where go b (c:cs) = b <> go c cs
        go b []     = b

## head@NonEmpty :: NonEmpty a -> a
head (a :| _) = a

## toList@NonEmpty :: NonEmpty a -> [a]
toList (a :| as) = a : as

## nonEmpty :: [a] -> Maybe (NonEmpty a)
nonEmpty []     = Nothing
nonEmpty (a:as) = Just (a :| as)

## map@NonEmpty :: (a -> b) -> NonEmpty a -> NonEmpty b
map f (a :| as) = f a :| fmap f as

## getDown :: Down a -> a
getDown (Down a) = a
+ newtype Down a = Down a

## compareDown :: Ord a => Down a -> Down a -> Ordering
compareDown (Down x) (Down y) = compare y x
+ newtype Down a = Down a

## fmap@Identity :: (a -> b) -> Identity a -> Identity b
fmap f (Identity a) = Identity (f a)
+ newtype Identity a = Identity { runIdentity :: a }

## (>>=)@Identity :: Identity a -> (a -> Identity b) -> Identity b
m >>= k = k (runIdentity m)
+ newtype Identity a = Identity { runIdentity :: a }
! more-specific: Identity a -> (a -> b) -> b

## (<>)@Endo :: Endo a -> Endo a -> Endo a
Endo f <> Endo g = Endo (f . g)
+ newtype Endo a = Endo { appEndo :: a -> a }

## (<>)@First :: First a -> First a -> First a
First Nothing <> b = b
a             <> _ = a
+ newtype First a = First { getFirst :: Maybe a }

## sum@Sum :: (Foldable t, Num a) => t a -> a
sum = getSum . foldMap Sum
+ newtype Sum a = Sum { getSum :: a }
+ instance Num a => Semigroup (Sum a)
+ instance Num a => Monoid (Sum a)

## realPart :: Complex a -> a
realPart (x :+ _) = x
+ infix 6 :+
+ data Complex a = a :+ a

## conjugate :: Num a => Complex a -> Complex a
conjugate (x :+ y) = x :+ negate y
+ infix 6 :+
+ data Complex a = a :+ a

## magnitude :: Floating a => Complex a -> a
magnitude (x :+ y) = sqrt (x * x + y * y)
+ infix 6 :+
+ data Complex a = a :+ a

## evalState :: State s a -> s -> a
evalState m s = fst (runState m s)
+ newtype State s a = State { runState :: s -> (a, s) }

## get@State :: State s s
get = State (\s -> (s, s))
+ newtype State s a = State { runState :: s -> (a, s) }

## modify@State :: (s -> s) -> State s ()
modify f = State (\s -> ((), f s))
+ newtype State s a = State { runState :: s -> (a, s) }

## fromL@Container :: Container f => [a] -> f a
fromL xs = foldr insert empty xs
+ class Container f where
    empty :: f a
    insert :: a -> f a -> f a
    toL :: f a -> [a]

## describe@Shape :: Shape a => a -> String
describe x = name x ++ " of area " ++ show (area x)
+ class Shape a where
    area :: a -> Double
    name :: a -> String

## depth@Tree :: Tree a -> Int
depth Leaf = zero
depth (Node l _ r) = one + max (depth l) (depth r)
+ data Tree a = Leaf | Node (Tree a) a (Tree a)
+ zero :: Int
+ one :: Int
+ max :: Int -> Int -> Int

## insert@Tree :: Ord a => a -> Tree a -> Tree a
insert x Leaf = Node Leaf x Leaf
insert x t@(Node l y r)
  | x < y     = Node (insert x l) y r
  | x > y     = Node l y (insert x r)
  | otherwise = t
+ data Tree a = Leaf | Node (Tree a) a (Tree a)

## foldTree@Tree :: (b -> a -> b -> b) -> b -> Tree a -> b
foldTree _ z Leaf = z
foldTree f z (Node l x r) = f (foldTree f z l) x (foldTree f z r)
+ data Tree a = Leaf | Node (Tree a) a (Tree a)

## showColor@Color :: Color -> String
showColor c = case c of
  Red   -> "red"
  Green -> "green"
  Blue  -> "blue"
+ data Color = Red | Green | Blue

## nextColor@Color :: Color -> Color
nextColor c
  | c == Blue = Red
  | otherwise = succ c
+ data Color = Red | Green | Blue deriving (Eq, Ord, Enum, Bounded)
