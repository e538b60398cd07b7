namespace Multi.Lib.Compat;

internal static class Polyfill
{
    public static int Clamp(int v, int lo, int hi) => v < lo ? lo : v > hi ? hi : v;
}
