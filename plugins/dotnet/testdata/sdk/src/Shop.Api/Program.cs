using Shop.Services;

namespace Shop.Api;

public static class Program
{
    // A string mentioning namespace Fake; must not count.
    private const string Banner = "namespace Fake;";

    public static void Main(string[] args) => Console.WriteLine(Banner);
}
