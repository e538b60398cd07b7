using Shop.Models;

namespace Shop.Services
{
    public class OrderService
    {
        /* namespace Inside.Comment { } */
        public decimal Sum(IEnumerable<Order> orders) => orders.Sum(o => o.Total);
    }

    namespace Internal
    {
        internal static class Cache { }
    }
}

namespace Shop.Services.Extensions
{
    public static class OrderExtensions { }
}
