package tiny

func square(x int) int { return x * x }
