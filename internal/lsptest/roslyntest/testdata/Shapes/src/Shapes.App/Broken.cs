namespace Shapes.App;

internal static class Broken
{
    internal static int Twice(int value)
    {
        int result = value * 2
        return result;
    }
}
