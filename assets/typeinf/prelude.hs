-- The base environment of the typeinf family: the Prelude's (and a few of base's) types, classes,
-- instances, fixities and function signatures, as GHC 9.0 / base-4.15 declares them, with the
-- Foldable/Traversable list functions at their GHC.List types (the functions the tasks define).
-- Read by core/families/typeinf/env.py; a task's own dependencies override anything here.

infixr 9 .
infixr 8 ^, ^^, **
infixl 7 *, /, `quot`, `rem`, `div`, `mod`
infixl 6 +, -
infixr 5 :, ++
infix 4 ==, /=, <, <=, >=, >, `elem`, `notElem`
infixl 4 <$>, <$, $>, <*>, *>, <*
infixr 3 &&
infixr 2 ||
infixl 1 >>, >>=
infixr 1 =<<
infixr 0 $, $!, `seq`
infixl 9 !!
infixr 6 <>
infixl 0 `on`
infixr 5 :|

data Bool = False | True
data Ordering = LT | EQ | GT
data Maybe a = Nothing | Just a
data Either a b = Left a | Right b
data Char
data Int
data Integer
data Word
data Float
data Double
data IO a
data Ratio a
data NonEmpty a = a :| [a]
type String = [Char]
type ShowS = String -> String
type ReadS a = String -> [(a, String)]
type FilePath = String
type Rational = Ratio Integer

class Eq a where
  (==), (/=) :: a -> a -> Bool
class Eq a => Ord a where
  compare :: a -> a -> Ordering
  (<), (<=), (>), (>=) :: a -> a -> Bool
  max, min :: a -> a -> a
class Show a where
  showsPrec :: Int -> a -> ShowS
  show :: a -> String
  showList :: [a] -> ShowS
class Read a where
  readsPrec :: Int -> ReadS a
  readList :: ReadS [a]
class Enum a where
  succ, pred :: a -> a
  toEnum :: Int -> a
  fromEnum :: a -> Int
  enumFrom :: a -> [a]
  enumFromThen :: a -> a -> [a]
  enumFromTo :: a -> a -> [a]
  enumFromThenTo :: a -> a -> a -> [a]
class Bounded a where
  minBound, maxBound :: a
class Num a where
  (+), (-), (*) :: a -> a -> a
  negate, abs, signum :: a -> a
  fromInteger :: Integer -> a
class (Num a, Ord a) => Real a where
  toRational :: a -> Rational
class (Real a, Enum a) => Integral a where
  quot, rem, div, mod :: a -> a -> a
  quotRem, divMod :: a -> a -> (a, a)
  toInteger :: a -> Integer
class Num a => Fractional a where
  (/) :: a -> a -> a
  recip :: a -> a
  fromRational :: Rational -> a
class Fractional a => Floating a where
  pi :: a
  exp, log, sqrt, sin, cos, tan :: a -> a
  (**), logBase :: a -> a -> a
class (Real a, Fractional a) => RealFrac a where
  properFraction :: Integral b => a -> (b, a)
  truncate, round, ceiling, floor :: Integral b => a -> b
class (RealFrac a, Floating a) => RealFloat a where
  floatDigits :: a -> Int
  decodeFloat :: a -> (Integer, Int)
  isNaN :: a -> Bool
class Semigroup a where
  (<>) :: a -> a -> a
class Semigroup a => Monoid a where
  mempty :: a
  mappend :: a -> a -> a
  mconcat :: [a] -> a
class Functor f where
  fmap :: (a -> b) -> f a -> f b
  (<$) :: a -> f b -> f a
class Functor f => Applicative f where
  pure :: a -> f a
  (<*>) :: f (a -> b) -> f a -> f b
  (*>) :: f a -> f b -> f b
  (<*) :: f a -> f b -> f a
  liftA2 :: (a -> b -> c) -> f a -> f b -> f c
class Applicative m => Monad m where
  (>>=) :: m a -> (a -> m b) -> m b
  (>>) :: m a -> m b -> m b
  return :: a -> m a
class Monad m => MonadFail m where
  fail :: String -> m a
class Foldable t where
  foldMap :: Monoid m => (a -> m) -> t a -> m
  null :: t a -> Bool
class (Functor t, Foldable t) => Traversable t where
  traverse :: Applicative f => (a -> f b) -> t a -> f (t b)

instance Eq Bool
instance Eq Char
instance Eq Int
instance Eq Integer
instance Eq Word
instance Eq Float
instance Eq Double
instance Eq Ordering
instance Eq ()
instance Eq a => Eq [a]
instance Eq a => Eq (Maybe a)
instance (Eq a, Eq b) => Eq (Either a b)
instance (Eq a, Eq b) => Eq (a, b)
instance (Eq a, Eq b, Eq c) => Eq (a, b, c)
instance Eq a => Eq (NonEmpty a)
instance Integral a => Eq (Ratio a)
instance Ord Bool
instance Ord Char
instance Ord Int
instance Ord Integer
instance Ord Word
instance Ord Float
instance Ord Double
instance Ord Ordering
instance Ord ()
instance Ord a => Ord [a]
instance Ord a => Ord (Maybe a)
instance (Ord a, Ord b) => Ord (Either a b)
instance (Ord a, Ord b) => Ord (a, b)
instance (Ord a, Ord b, Ord c) => Ord (a, b, c)
instance Ord a => Ord (NonEmpty a)
instance Integral a => Ord (Ratio a)
instance Show Bool
instance Show Char
instance Show Int
instance Show Integer
instance Show Word
instance Show Float
instance Show Double
instance Show Ordering
instance Show ()
instance Show a => Show [a]
instance Show a => Show (Maybe a)
instance (Show a, Show b) => Show (Either a b)
instance (Show a, Show b) => Show (a, b)
instance (Show a, Show b, Show c) => Show (a, b, c)
instance Show a => Show (NonEmpty a)
instance Show a => Show (Ratio a)
instance Read Bool
instance Read Char
instance Read Int
instance Read Integer
instance Read Word
instance Read Float
instance Read Double
instance Read Ordering
instance Read ()
instance Read a => Read [a]
instance Read a => Read (Maybe a)
instance (Read a, Read b) => Read (Either a b)
instance (Read a, Read b) => Read (a, b)
instance Enum Bool
instance Enum Char
instance Enum Int
instance Enum Integer
instance Enum Word
instance Enum Float
instance Enum Double
instance Enum Ordering
instance Enum ()
instance Integral a => Enum (Ratio a)
instance Bounded Bool
instance Bounded Char
instance Bounded Int
instance Bounded Word
instance Bounded Ordering
instance Bounded ()
instance (Bounded a, Bounded b) => Bounded (a, b)
instance Num Int
instance Num Integer
instance Num Word
instance Num Float
instance Num Double
instance Integral a => Num (Ratio a)
instance Real Int
instance Real Integer
instance Real Word
instance Real Float
instance Real Double
instance Integral a => Real (Ratio a)
instance Integral Int
instance Integral Integer
instance Integral Word
instance Fractional Float
instance Fractional Double
instance Integral a => Fractional (Ratio a)
instance Floating Float
instance Floating Double
instance RealFrac Float
instance RealFrac Double
instance Integral a => RealFrac (Ratio a)
instance RealFloat Float
instance RealFloat Double
instance Semigroup [a]
instance Semigroup Ordering
instance Semigroup ()
instance Semigroup b => Semigroup (a -> b)
instance Semigroup a => Semigroup (Maybe a)
instance (Semigroup a, Semigroup b) => Semigroup (a, b)
instance Semigroup (NonEmpty a)
instance Monoid [a]
instance Monoid Ordering
instance Monoid ()
instance Monoid b => Monoid (a -> b)
instance Semigroup a => Monoid (Maybe a)
instance (Monoid a, Monoid b) => Monoid (a, b)
-- Data.Monoid's wrappers (the released TF-Bench tasks declare most newtypes themselves; an early
-- released foldr uses the constructor Endo with only appEndo among its dependencies)
newtype Sum a = Sum { getSum :: a }
newtype Product a = Product { getProduct :: a }
newtype Any = Any { getAny :: Bool }
newtype All = All { getAll :: Bool }
newtype Dual a = Dual { getDual :: a }
newtype Endo a = Endo { appEndo :: a -> a }
instance Num a => Semigroup (Sum a)
instance Num a => Monoid (Sum a)
instance Num a => Semigroup (Product a)
instance Num a => Monoid (Product a)
instance Semigroup Any
instance Monoid Any
instance Semigroup All
instance Monoid All
instance Semigroup a => Semigroup (Dual a)
instance Monoid a => Monoid (Dual a)
instance Semigroup (Endo a)
instance Monoid (Endo a)
instance Functor []
instance Functor Maybe
instance Functor (Either a)
instance Functor IO
instance Functor ((->) r)
instance Functor ((,) a)
instance Functor NonEmpty
instance Applicative []
instance Applicative Maybe
instance Applicative (Either e)
instance Applicative IO
instance Applicative ((->) r)
instance Monoid a => Applicative ((,) a)
instance Applicative NonEmpty
instance Monad []
instance Monad Maybe
instance Monad (Either e)
instance Monad IO
instance Monad ((->) r)
instance Monoid a => Monad ((,) a)
instance Monad NonEmpty
instance MonadFail []
instance MonadFail Maybe
instance MonadFail IO
instance Foldable []
instance Foldable Maybe
instance Foldable (Either a)
instance Foldable ((,) a)
instance Foldable NonEmpty
instance Traversable []
instance Traversable Maybe
instance Traversable (Either a)
instance Traversable ((,) a)
instance Traversable NonEmpty

otherwise :: Bool
undefined :: a
error :: [Char] -> a
errorWithoutStackTrace :: [Char] -> a
seq :: a -> b -> b
($!) :: (a -> b) -> a -> b
id :: a -> a
const :: a -> b -> a
flip :: (a -> b -> c) -> b -> a -> c
(.) :: (b -> c) -> (a -> b) -> a -> c
($) :: (a -> b) -> a -> b
not :: Bool -> Bool
(&&) :: Bool -> Bool -> Bool
(||) :: Bool -> Bool -> Bool
fst :: (a, b) -> a
snd :: (a, b) -> b
curry :: ((a, b) -> c) -> a -> b -> c
uncurry :: (a -> b -> c) -> (a, b) -> c
maybe :: b -> (a -> b) -> Maybe a -> b
either :: (a -> c) -> (b -> c) -> Either a b -> c
until :: (a -> Bool) -> (a -> a) -> a -> a
asTypeOf :: a -> a -> a
map :: (a -> b) -> [a] -> [b]
(++) :: [a] -> [a] -> [a]
filter :: (a -> Bool) -> [a] -> [a]
head :: [a] -> a
last :: [a] -> a
tail :: [a] -> [a]
init :: [a] -> [a]
(!!) :: [a] -> Int -> a
null :: [a] -> Bool
length :: [a] -> Int
reverse :: [a] -> [a]
and :: [Bool] -> Bool
or :: [Bool] -> Bool
any :: (a -> Bool) -> [a] -> Bool
all :: (a -> Bool) -> [a] -> Bool
concat :: [[a]] -> [a]
concatMap :: (a -> [b]) -> [a] -> [b]
foldr :: (a -> b -> b) -> b -> [a] -> b
foldl :: (b -> a -> b) -> b -> [a] -> b
foldr1 :: (a -> a -> a) -> [a] -> a
foldl1 :: (a -> a -> a) -> [a] -> a
scanl :: (b -> a -> b) -> b -> [a] -> [b]
scanl1 :: (a -> a -> a) -> [a] -> [a]
scanr :: (a -> b -> b) -> b -> [a] -> [b]
scanr1 :: (a -> a -> a) -> [a] -> [a]
iterate :: (a -> a) -> a -> [a]
repeat :: a -> [a]
replicate :: Int -> a -> [a]
cycle :: [a] -> [a]
take :: Int -> [a] -> [a]
drop :: Int -> [a] -> [a]
splitAt :: Int -> [a] -> ([a], [a])
takeWhile :: (a -> Bool) -> [a] -> [a]
dropWhile :: (a -> Bool) -> [a] -> [a]
span :: (a -> Bool) -> [a] -> ([a], [a])
break :: (a -> Bool) -> [a] -> ([a], [a])
elem :: Eq a => a -> [a] -> Bool
notElem :: Eq a => a -> [a] -> Bool
lookup :: Eq a => a -> [(a, b)] -> Maybe b
sum :: Num a => [a] -> a
product :: Num a => [a] -> a
maximum :: Ord a => [a] -> a
minimum :: Ord a => [a] -> a
zip :: [a] -> [b] -> [(a, b)]
zip3 :: [a] -> [b] -> [c] -> [(a, b, c)]
zipWith :: (a -> b -> c) -> [a] -> [b] -> [c]
zipWith3 :: (a -> b -> c -> d) -> [a] -> [b] -> [c] -> [d]
unzip :: [(a, b)] -> ([a], [b])
unzip3 :: [(a, b, c)] -> ([a], [b], [c])
lines :: String -> [String]
words :: String -> [String]
unlines :: [String] -> String
unwords :: [String] -> String
shows :: Show a => a -> ShowS
showChar :: Char -> ShowS
showString :: String -> ShowS
showParen :: Bool -> ShowS -> ShowS
reads :: Read a => ReadS a
read :: Read a => String -> a
lex :: ReadS String
subtract :: Num a => a -> a -> a
even :: Integral a => a -> Bool
odd :: Integral a => a -> Bool
gcd :: Integral a => a -> a -> a
lcm :: Integral a => a -> a -> a
(^) :: (Num a, Integral b) => a -> b -> a
(^^) :: (Fractional a, Integral b) => a -> b -> a
fromIntegral :: (Integral a, Num b) => a -> b
realToFrac :: (Real a, Fractional b) => a -> b
mapM_ :: Monad m => (a -> m b) -> [a] -> m ()
mapM :: Monad m => (a -> m b) -> [a] -> m [b]
sequence :: Monad m => [m a] -> m [a]
sequence_ :: Monad m => [m a] -> m ()
(=<<) :: Monad m => (a -> m b) -> m a -> m b
(<$>) :: Functor f => (a -> b) -> f a -> f b
putStr :: String -> IO ()
putStrLn :: String -> IO ()
getLine :: IO String
print :: Show a => a -> IO ()
ord :: Char -> Int
chr :: Int -> Char
isSpace :: Char -> Bool
isDigit :: Char -> Bool
isUpper :: Char -> Bool
isLower :: Char -> Bool
isAlpha :: Char -> Bool
isAlphaNum :: Char -> Bool
toUpper :: Char -> Char
toLower :: Char -> Char
digitToInt :: Char -> Int
intToDigit :: Int -> Char
on :: (b -> b -> c) -> (a -> b) -> a -> a -> c
comparing :: Ord a => (b -> a) -> b -> b -> Ordering
when :: Applicative f => Bool -> f () -> f ()
unless :: Applicative f => Bool -> f () -> f ()
void :: Functor f => f a -> f ()
join :: Monad m => m (m a) -> m a
liftM2 :: Monad m => (a1 -> a2 -> r) -> m a1 -> m a2 -> m r
ap :: Monad m => m (a -> b) -> m a -> m b
fromMaybe :: a -> Maybe a -> a
catMaybes :: [Maybe a] -> [a]
mapMaybe :: (a -> Maybe b) -> [a] -> [b]
isJust :: Maybe a -> Bool
isNothing :: Maybe a -> Bool
fromJust :: Maybe a -> a
listToMaybe :: [a] -> Maybe a
maybeToList :: Maybe a -> [a]
lefts :: [Either a b] -> [a]
rights :: [Either a b] -> [b]
partitionEithers :: [Either a b] -> ([a], [b])
isLeft :: Either a b -> Bool
fromLeft :: a -> Either a b -> a
sortBy :: (a -> a -> Ordering) -> [a] -> [a]
insertBy :: (a -> a -> Ordering) -> a -> [a] -> [a]
sort :: Ord a => [a] -> [a]
nub :: Eq a => [a] -> [a]
partition :: (a -> Bool) -> [a] -> ([a], [a])
intercalate :: [a] -> [[a]] -> [a]
intersperse :: a -> [a] -> [a]
transpose :: [[a]] -> [[a]]
isPrefixOf :: Eq a => [a] -> [a] -> Bool
group :: Eq a => [a] -> [[a]]
groupBy :: (a -> a -> Bool) -> [a] -> [[a]]
tails :: [a] -> [[a]]
foldl' :: (b -> a -> b) -> b -> [a] -> b
unfoldr :: (b -> Maybe (a, b)) -> b -> [a]
genericLength :: Num i => [a] -> i
swap :: (a, b) -> (b, a)
bool :: a -> a -> Bool -> a
isAsciiLower :: Char -> Bool
isAsciiUpper :: Char -> Bool
delete :: Eq a => a -> [a] -> [a]
deleteBy :: (a -> a -> Bool) -> a -> [a] -> [a]
elemBy :: (a -> a -> Bool) -> a -> [a] -> Bool
liftM :: Monad m => (a1 -> r) -> m a1 -> m r
find :: (a -> Bool) -> [a] -> Maybe a
filterM :: Applicative m => (a -> m Bool) -> [a] -> m [a]
foldM :: Monad m => (b -> a -> m b) -> b -> [a] -> m b
zipWithM :: Applicative m => (a -> b -> m c) -> [a] -> [b] -> m [c]
replicateM :: Applicative m => Int -> m a -> m [a]
