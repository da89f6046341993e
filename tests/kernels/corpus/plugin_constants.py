import warp as wp
# plugins: wt_color
import warp_test

TINT = wp.constant(warp_test.Color(1.0, 0.5, 0.25))
AMBIENT = wp.constant(warp_test.Color(r=0.05, g=0.05, b=0.05))


@wp.struct
class Light:
    color: warp_test.Color
    intensity: float
    position: wp.vec3


@wp.kernel
def shade(lights: wp.array(dtype=Light), out: wp.array(dtype=warp_test.Color), p: wp.vec3):
    i = wp.tid()
    light = lights[i]
    d = wp.length(light.position - p)
    falloff = light.intensity / (1.0 + d * d)
    out[i] = wp._test_native_scale(light.color + TINT, falloff) + AMBIENT


@wp.kernel
def make_lights(lights: wp.array(dtype=Light)):
    i = wp.tid()
    l = Light()
    l.color = warp_test.Color(1.0, 1.0, 1.0)
    l.intensity = 10.0
    l.position = wp.vec3(float(i), 2.0, 0.0)
    lights[i] = l
    lights[i].color.g = TINT.g
