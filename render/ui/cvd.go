package ui

import (
	"image/color"
	"math"
)

// Colour-vision deficiency: how a colour looks to someone with
// protanopia, deuteranopia or tritanopia, and how far apart two colours
// look. The palette's test uses them to check that every two colours
// that must be told apart stay apart for them too.

// Deficiency is a kind of colour blindness.
type Deficiency uint8

// The deficiencies simulated.
const (
	Normal       Deficiency = iota
	Protanopia              // no long-wavelength (red) cones
	Deuteranopia            // no medium-wavelength (green) cones
	Tritanopia              // no short-wavelength (blue) cones
)

var deficiencyNames = [...]string{"normal vision", "protanopia", "deuteranopia", "tritanopia"}

func (d Deficiency) String() string { return deficiencyNames[d] }

// Deficiencies lists every kind of vision checked, normal first.
var Deficiencies = []Deficiency{Normal, Protanopia, Deuteranopia, Tritanopia}

// machado are the simulation matrices of Machado, Oliveira and Fernandes,
// "A Physiologically-based Model for Simulation of Color Vision
// Deficiency", IEEE TVCG 15(6), 2009, at severity 1.0 (their Table 1, as
// published on the authors' page). They act on linear RGB.
var machado = map[Deficiency][3][3]float64{
	Protanopia: {
		{0.152286, 1.052583, -0.204868},
		{0.114503, 0.786281, 0.099216},
		{-0.003882, -0.048116, 1.051998},
	},
	Deuteranopia: {
		{0.367322, 0.860646, -0.227968},
		{0.280085, 0.672501, 0.047413},
		{-0.011820, 0.042940, 0.968881},
	},
	Tritanopia: {
		{1.255528, -0.076749, -0.178779},
		{-0.078411, 0.930809, 0.147602},
		{0.004733, 0.691367, 0.303900},
	},
}

// Simulate returns how c looks with a deficiency.
func Simulate(c color.RGBA, d Deficiency) color.RGBA {
	if d == Normal {
		return c
	}
	m := machado[d]
	in := [3]float64{toLinear(c.R), toLinear(c.G), toLinear(c.B)}
	var out [3]uint8
	for i := range 3 {
		v := m[i][0]*in[0] + m[i][1]*in[1] + m[i][2]*in[2]
		out[i] = fromLinear(v)
	}
	return color.RGBA{out[0], out[1], out[2], c.A}
}

func toLinear(v uint8) float64 {
	c := float64(v) / 255
	if c <= 0.04045 {
		return c / 12.92
	}
	return math.Pow((c+0.055)/1.055, 2.4)
}

func fromLinear(v float64) uint8 {
	v = math.Max(0, math.Min(1, v))
	if v <= 0.0031308 {
		v *= 12.92
	} else {
		v = 1.055*math.Pow(v, 1/2.4) - 0.055
	}
	return uint8(math.Round(v * 255))
}

// Lab is a colour in CIE L*a*b* (D65 white).
type Lab struct{ L, A, B float64 }

// ToLab converts an sRGB colour to CIE L*a*b*.
func ToLab(c color.RGBA) Lab {
	r, g, b := toLinear(c.R), toLinear(c.G), toLinear(c.B)
	x := (0.4124564*r + 0.3575761*g + 0.1804375*b) / 0.95047
	y := 0.2126729*r + 0.7151522*g + 0.0721750*b
	z := (0.0193339*r + 0.1191920*g + 0.9503041*b) / 1.08883
	f := func(t float64) float64 {
		if t > 216.0/24389 {
			return math.Cbrt(t)
		}
		return (24389.0/27*t + 16) / 116
	}
	fx, fy, fz := f(x), f(y), f(z)
	return Lab{116*fy - 16, 500 * (fx - fy), 200 * (fy - fz)}
}

// DeltaE2000 is the CIEDE2000 colour difference between two colours: about
// 1 is barely visible side by side; colours that must be told apart at a
// glance, across a room, need far more.
func DeltaE2000(c1, c2 color.RGBA) float64 { return deltaE2000Lab(ToLab(c1), ToLab(c2)) }

// deltaE2000Lab is CIEDE2000 on two Lab colours, after Sharma, Wu and
// Dalal, "The CIEDE2000 color-difference formula: implementation notes,
// supplementary test data, and mathematical observations" (2005).
func deltaE2000Lab(a, b Lab) float64 {
	rad := math.Pi / 180
	c1s := math.Hypot(a.A, a.B)
	c2s := math.Hypot(b.A, b.B)
	cm := (c1s + c2s) / 2
	g := 0.5 * (1 - math.Sqrt(math.Pow(cm, 7)/(math.Pow(cm, 7)+math.Pow(25, 7))))
	a1, a2 := (1+g)*a.A, (1+g)*b.A
	C1, C2 := math.Hypot(a1, a.B), math.Hypot(a2, b.B)
	hue := func(x, y float64) float64 {
		if x == 0 && y == 0 {
			return 0
		}
		h := math.Atan2(y, x) / rad
		if h < 0 {
			h += 360
		}
		return h
	}
	h1, h2 := hue(a1, a.B), hue(a2, b.B)
	dL := b.L - a.L
	dC := C2 - C1
	dh := 0.0
	if C1*C2 != 0 {
		dh = h2 - h1
		switch {
		case dh > 180:
			dh -= 360
		case dh < -180:
			dh += 360
		}
	}
	dH := 2 * math.Sqrt(C1*C2) * math.Sin(dh/2*rad)
	Lm := (a.L + b.L) / 2
	Cm := (C1 + C2) / 2
	hm := h1 + h2
	if C1*C2 != 0 {
		switch {
		case math.Abs(h1-h2) <= 180:
			hm = (h1 + h2) / 2
		case h1+h2 < 360:
			hm = (h1 + h2 + 360) / 2
		default:
			hm = (h1 + h2 - 360) / 2
		}
	}
	t := 1 - 0.17*math.Cos((hm-30)*rad) + 0.24*math.Cos(2*hm*rad) + 0.32*math.Cos((3*hm+6)*rad) - 0.20*math.Cos((4*hm-63)*rad)
	dTheta := 30 * math.Exp(-math.Pow((hm-275)/25, 2))
	rc := 2 * math.Sqrt(math.Pow(Cm, 7)/(math.Pow(Cm, 7)+math.Pow(25, 7)))
	sl := 1 + 0.015*math.Pow(Lm-50, 2)/math.Sqrt(20+math.Pow(Lm-50, 2))
	sc := 1 + 0.045*Cm
	sh := 1 + 0.015*Cm*t
	rt := -math.Sin(2*dTheta*rad) * rc
	return math.Sqrt(math.Pow(dL/sl, 2) + math.Pow(dC/sc, 2) + math.Pow(dH/sh, 2) + rt*(dC/sc)*(dH/sh))
}
