namespace Contoso.Legacy
{
    partial class Unlisted { }
}
